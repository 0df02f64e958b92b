# On the broker, as TestAccRecipeBroker_retireDrainedTopic arranges it: var.topic holds one record
# stamped an hour ago, and its one reader, "<topic>-reader", has committed at the log end.
variables {
  retire_audit_topic = true
}

run "quiet_for_30m_retires" {
  command = plan
  variables {
    quiet_for = "30m"
  }
  assert {
    condition     = data.kafka_topics_drained.audit.drained && length(data.kafka_topics_drained.audit.not_drained) == 0
    error_message = "the topic should read drained"
  }
  assert {
    condition     = data.kafka_topics_drained.audit.selected_topics == tolist([var.topic]) && length(data.kafka_topics_drained.audit.missing_topics) == 0
    error_message = "the topic should be selected, and not missing"
  }
  assert {
    condition     = data.kafka_topics_drained.audit.group_ids == tolist(["${var.topic}-reader"])
    error_message = "its one reader should be listed"
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 0
    error_message = "the topic should be retired"
  }
}

# The record an hour old is a write within 2h: not quiet.
run "quiet_for_2h_blocks" {
  command = plan
  variables {
    quiet_for = "2h"
  }
  expect_failures = [terraform_data.audit_drain_gate]
}
