# Unit tests of the gate: no broker, the verdict set by a mock. The gate reads one value, drained,
# which a bare mock sets to false: a test without an override refuses the retirement.
mock_provider "kafka" {}

variables {
  retire_legacy_topics = true
}

run "drained_retires" {
  command = plan
  override_data {
    target = data.kafka_topics_drained.legacy
    values = { drained = true, not_drained = [], selected_topics = ["legacy.a", "legacy.b"], group_ids = ["legacy-billing"] }
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

# A bare mock reads drained = false: the absence of data never retires a topic.
run "bare_mock_blocks" {
  command         = plan
  expect_failures = [terraform_data.legacy_retirement_gate, check.legacy_topics_left]
}

run "reader_behind_blocks" {
  command = plan
  override_data {
    target = data.kafka_topics_drained.legacy
    values = { drained = false, not_drained = ["group legacy-audit has not caught up: legacy.b/0: lag 1 (committed_offset 0, latest_offset 1)"], selected_topics = ["legacy.a", "legacy.b"], group_ids = ["legacy-audit"] }
  }
  expect_failures = [terraform_data.legacy_retirement_gate]
}

run "recent_write_blocks" {
  command = plan
  override_data {
    target = data.kafka_topics_drained.legacy
    values = { drained = false, not_drained = ["legacy.a: last write 2999-01-01T00:00:00Z (the largest record timestamp, ListOffsets -3), within quiet_for (168h0m0s)"], selected_topics = ["legacy.a"], group_ids = [] }
  }
  expect_failures = [terraform_data.legacy_retirement_gate]
}

# Not retiring: the gate lets every other change through, drained or not.
run "kept_topics_plan" {
  command = plan
  variables {
    retire_legacy_topics = false
  }
  override_data {
    target = data.kafka_topics_drained.legacy
    values = { drained = false, not_drained = ["legacy.a: 1 open transaction (0 hanging): read_committed readers wait behind it, and it may still write"], selected_topics = ["legacy.a"], group_ids = [] }
  }
  assert {
    condition     = terraform_data.legacy_retirement_gate.input == false
    error_message = "nothing should be retired"
  }
}

# Every legacy topic gone: nothing left to retire passes, and the check warns.
run "none_left_passes_and_warns" {
  command = plan
  override_data {
    target = data.kafka_topics_drained.legacy
    values = { drained = true, not_drained = [], selected_topics = [], group_ids = [] }
  }
  assert {
    condition     = terraform_data.legacy_retirement_gate.input == true
    error_message = "the retirement should be planned"
  }
  expect_failures = [check.legacy_topics_left]
}
