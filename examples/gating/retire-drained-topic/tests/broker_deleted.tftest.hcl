# On the broker, once var.topic is deleted (TestAccRecipeBroker_retireDrainedTopic deletes it): the
# plan after the deletion passes with the configuration as it stands, and the check warns that the
# topic does not exist.
variables {
  retire_audit_topic = true
}

run "after_deletion_passes_and_warns" {
  command = plan
  assert {
    condition     = data.kafka_topics_drained.audit.drained && data.kafka_topics_drained.audit.missing_topics == tolist([var.topic]) && length(data.kafka_topics_drained.audit.selected_topics) == 0
    error_message = "the deleted topic should read drained and missing"
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 0 && terraform_data.audit_drain_gate.input == true
    error_message = "the plan after the deletion should pass"
  }
  expect_failures = [check.audit_topic_exists]
}
