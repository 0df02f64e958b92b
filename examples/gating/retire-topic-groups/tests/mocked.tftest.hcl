# Unit tests of the gate: no broker, the data sources' values set by a mock. Every value the gate
# reads is set: a mock makes up a string for an unset last_write_time.
mock_provider "kafka" {}

variables {
  retire_legacy_topics = true
}

run "quiet_and_read_retires" {
  command = plan
  override_data {
    target = data.kafka_topics_offsets.legacy
    values = { message_counts = { "legacy.a" = 2, "legacy.b" = 2 }, topics_with_records = ["legacy.a", "legacy.b"], last_write_time = "2020-01-01T00:00:00Z" }
  }
  override_data {
    target = data.kafka_consumer_groups.legacy_readers
    values = { caught_up = true, group_ids = ["legacy-billing"], not_caught_up = [] }
  }
  assert {
    condition     = terraform_data.legacy_retirement_gate.input == true
    error_message = "the retirement should be planned"
  }
  assert {
    condition     = output.legacy_readers == tolist(["legacy-billing"])
    error_message = "the reader should be listed"
  }
}

run "no_reader_retires" {
  command = plan
  override_data {
    target = data.kafka_topics_offsets.legacy
    values = { message_counts = { "legacy.a" = 2 }, topics_with_records = ["legacy.a"], last_write_time = "2020-01-01T00:00:00Z" }
  }
  override_data {
    target = data.kafka_consumer_groups.legacy_readers
    values = { caught_up = false, group_ids = [], not_caught_up = ["no group selected: none reads legacy.a"] }
  }
  assert {
    condition     = terraform_data.legacy_retirement_gate.input == true
    error_message = "topics nobody reads should be retired"
  }
}

run "written_recently_blocks" {
  command = plan
  override_data {
    target = data.kafka_topics_offsets.legacy
    values = { message_counts = { "legacy.a" = 2, "legacy.b" = 0 }, topics_with_records = ["legacy.a"], last_write_time = "2999-01-01T00:00:00Z" }
  }
  override_data {
    target = data.kafka_consumer_groups.legacy_readers
    values = { caught_up = true, group_ids = ["legacy-billing"], not_caught_up = [] }
  }
  expect_failures = [terraform_data.legacy_retirement_gate]
}

# Records, and no known time (a topic holding records has a last write of null): not quiet.
run "null_last_write_with_records_blocks" {
  command = plan
  override_data {
    target = data.kafka_topics_offsets.legacy
    values = { message_counts = { "legacy.a" = 2 }, topics_with_records = ["legacy.a"], last_write_time = null }
  }
  override_data {
    target = data.kafka_consumer_groups.legacy_readers
    values = { caught_up = true, group_ids = ["legacy-billing"], not_caught_up = [] }
  }
  expect_failures = [terraform_data.legacy_retirement_gate]
}

run "null_last_write_empty_retires" {
  command = plan
  override_data {
    target = data.kafka_topics_offsets.legacy
    values = { message_counts = { "legacy.a" = 0 }, topics_with_records = [], last_write_time = null }
  }
  override_data {
    target = data.kafka_consumer_groups.legacy_readers
    values = { caught_up = true, group_ids = ["legacy-billing"], not_caught_up = [] }
  }
  assert {
    condition     = terraform_data.legacy_retirement_gate.input == true
    error_message = "empty topics every reader has read should be retired"
  }
}

run "reader_behind_blocks" {
  command = plan
  override_data {
    target = data.kafka_topics_offsets.legacy
    values = { message_counts = { "legacy.a" = 2 }, topics_with_records = ["legacy.a"], last_write_time = "2020-01-01T00:00:00Z" }
  }
  override_data {
    target = data.kafka_consumer_groups.legacy_readers
    values = { caught_up = false, group_ids = ["legacy-audit", "legacy-billing"], not_caught_up = ["legacy-audit: legacy.a/0: no commit, 2 records waiting"] }
  }
  expect_failures = [terraform_data.legacy_retirement_gate]
}

# Every legacy topic is gone: the groups are not read, the gate has nothing to refuse, and the
# check warns.
run "no_legacy_topic_left_passes_and_warns" {
  command = plan
  override_data {
    target = data.kafka_topics_offsets.legacy
    values = { message_counts = {}, topics_with_records = [], last_write_time = null }
  }
  assert {
    condition     = length(data.kafka_consumer_groups.legacy_readers) == 0 && terraform_data.legacy_retirement_gate.input == true
    error_message = "no group should be read, and the gate should pass"
  }
  expect_failures = [check.legacy_topics_left]
}
