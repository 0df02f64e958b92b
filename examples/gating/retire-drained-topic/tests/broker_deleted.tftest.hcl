# On the broker, once var.topic is deleted (TestAccRecipeBroker_retireDrainedTopic deletes it): the
# plan after the deletion passes with the configuration as it stands, reads neither producers nor
# readers, and the check warns that the topic does not exist.
variables {
  retire_audit_topic = true
}

run "after_deletion_passes_and_warns" {
  command = plan
  assert {
    condition     = !data.kafka_topic_offsets.audit.exists && data.kafka_topic_offsets.audit.partition_count == 0 && data.kafka_topic_offsets.audit.message_count == null
    error_message = "the deleted topic should read exists = false, 0 partitions, message_count null"
  }
  assert {
    condition     = length(data.kafka_topic_producers.audit) == 0 && length(data.kafka_consumer_groups.audit_readers) == 0
    error_message = "a deleted topic's producers and readers should not be read"
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 0 && terraform_data.audit_drain_gate.input == true
    error_message = "the plan after the deletion should pass"
  }
  expect_failures = [check.audit_topic_exists]
}
