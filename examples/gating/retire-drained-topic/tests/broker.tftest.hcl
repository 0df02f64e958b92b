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
    condition     = data.kafka_topic_offsets.audit.exists && data.kafka_topic_offsets.audit.message_count == 1
    error_message = "the topic should exist with 1 record"
  }
  assert {
    condition     = data.kafka_consumer_groups.audit_readers[0].group_ids == tolist(["${var.topic}-reader"]) && data.kafka_consumer_groups.audit_readers[0].caught_up
    error_message = "its one reader should be caught up"
  }
  assert {
    condition     = data.kafka_topic_producers.audit[0].open_transactions == 0 && data.kafka_topic_producers.audit[0].last_write_time != null
    error_message = "no transaction should be open, and the last write known"
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
