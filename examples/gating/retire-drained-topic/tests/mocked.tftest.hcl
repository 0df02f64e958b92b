# Unit tests of the gate: no broker, the data sources' values set by a mock. Every value the gate
# reads is set: a mock makes up a string for an unset last_write_time and false for exists.
mock_provider "kafka" {}

variables {
  retire_audit_topic = true
  quiet_for          = "168h"
}

run "drained_retires" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = true, partition_count = 1, message_count = 5 }
  }
  override_data {
    target = data.kafka_topic_producers.audit
    values = { last_write_time = "2020-01-01T00:00:00Z", open_transactions = 0 }
  }
  override_data {
    target = data.kafka_consumer_groups.audit_readers
    values = { caught_up = true, group_ids = ["audit-reader"], not_caught_up = [] }
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 0 && terraform_data.audit_drain_gate.input == true
    error_message = "the topic should be retired"
  }
}

run "no_reader_left_retires" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = true, partition_count = 1, message_count = 5 }
  }
  override_data {
    target = data.kafka_topic_producers.audit
    values = { last_write_time = "2020-01-01T00:00:00Z", open_transactions = 0 }
  }
  override_data {
    target = data.kafka_consumer_groups.audit_readers
    values = { caught_up = false, group_ids = [], not_caught_up = ["no group selected: none reads audit"] }
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 0
    error_message = "a topic nobody reads any more should be retired"
  }
}

run "reader_behind_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = true, partition_count = 1, message_count = 5 }
  }
  override_data {
    target = data.kafka_topic_producers.audit
    values = { last_write_time = "2020-01-01T00:00:00Z", open_transactions = 0 }
  }
  override_data {
    target = data.kafka_consumer_groups.audit_readers
    values = { caught_up = false, group_ids = ["audit-reader"], not_caught_up = ["audit-reader: audit/0: lag 3 (committed_offset 2, latest_offset 5)"] }
  }
  expect_failures = [terraform_data.audit_drain_gate]
}

run "recent_write_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = true, partition_count = 1, message_count = 5 }
  }
  override_data {
    target = data.kafka_topic_producers.audit
    values = { last_write_time = "2999-01-01T00:00:00Z", open_transactions = 0 }
  }
  override_data {
    target = data.kafka_consumer_groups.audit_readers
    values = { caught_up = true, group_ids = ["audit-reader"], not_caught_up = [] }
  }
  expect_failures = [terraform_data.audit_drain_gate]
}

# Records, none with a known time: nobody can vouch that the topic is quiet.
run "null_last_write_with_records_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = true, partition_count = 1, message_count = 5 }
  }
  override_data {
    target = data.kafka_topic_producers.audit
    values = { last_write_time = null, open_transactions = 0 }
  }
  override_data {
    target = data.kafka_consumer_groups.audit_readers
    values = { caught_up = true, group_ids = ["audit-reader"], not_caught_up = [] }
  }
  expect_failures = [terraform_data.audit_drain_gate]
}

run "null_last_write_empty_retires" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = true, partition_count = 1, message_count = 0 }
  }
  override_data {
    target = data.kafka_topic_producers.audit
    values = { last_write_time = null, open_transactions = 0 }
  }
  override_data {
    target = data.kafka_consumer_groups.audit_readers
    values = { caught_up = false, group_ids = [], not_caught_up = ["no group selected: none reads audit"] }
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 0
    error_message = "an empty topic nobody reads should be retired"
  }
}

run "open_transaction_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = true, partition_count = 1, message_count = 5 }
  }
  override_data {
    target = data.kafka_topic_producers.audit
    values = { last_write_time = "2020-01-01T00:00:00Z", open_transactions = 1 }
  }
  override_data {
    target = data.kafka_consumer_groups.audit_readers
    values = { caught_up = true, group_ids = ["audit-reader"], not_caught_up = [] }
  }
  expect_failures = [terraform_data.audit_drain_gate]
}

# Not retiring: the gate lets every other change through, drained or not.
run "kept_topic_plans" {
  command = plan
  variables {
    retire_audit_topic = false
  }
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = true, partition_count = 1, message_count = 5 }
  }
  override_data {
    target = data.kafka_topic_producers.audit
    values = { last_write_time = "2999-01-01T00:00:00Z", open_transactions = 1 }
  }
  override_data {
    target = data.kafka_consumer_groups.audit_readers
    values = { caught_up = false, group_ids = ["audit-reader"], not_caught_up = ["audit-reader: audit/0: lag 3 (committed_offset 2, latest_offset 5)"] }
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 1
    error_message = "the topic should be kept"
  }
}

# Once deleted, the plans after the deletion pass as the configuration stands: nothing but the
# topic is read, and the check warns that it does not exist.
run "deleted_topic_passes_and_warns" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.audit
    values = { exists = false, partition_count = 0, message_count = null }
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
