# Unit tests of the gate: no broker, the data sources' values set by a mock. orders has 2
# partitions: on 0 the first record at or after the cut-over is at offset 2 and the log ends at 4;
# 1 has no record since the cut-over (timestamp_offset null) and ends at 1.
mock_provider "kafka" {}

variables {
  cut_over_time = "2026-11-01T12:00:00Z"
}

run "read_up_to_the_cut_over_passes" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 2 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["0"]
    values = { timestamp_offset = 2, latest_offset = 4 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["1"]
    values = { timestamp_offset = null, latest_offset = 1 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders
    values = { committed_offsets = { "orders/0" = 3, "orders/1" = 1 } }
  }
  assert {
    condition     = length(local.behind) == 0 && terraform_data.drop_old_schema.input == "orders schema v1 dropped"
    error_message = "the change should be planned"
  }
}

run "behind_the_cut_over_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 2 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["0"]
    values = { timestamp_offset = 2, latest_offset = 4 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["1"]
    values = { timestamp_offset = null, latest_offset = 1 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders
    values = { committed_offsets = { "orders/0" = 1, "orders/1" = 1 } }
  }
  assert {
    condition     = local.behind == ["orders/0 (committed 1, needs 2)"]
    error_message = "partition 0 alone should be behind"
  }
  expect_failures = [terraform_data.drop_old_schema]
}

# A partition with no record since the cut-over: the commit must reach the log end.
run "behind_the_log_end_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 2 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["0"]
    values = { timestamp_offset = 2, latest_offset = 4 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["1"]
    values = { timestamp_offset = null, latest_offset = 1 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders
    values = { committed_offsets = { "orders/0" = 2, "orders/1" = 0 } }
  }
  assert {
    condition     = local.behind == ["orders/1 (committed 0, needs 1)"]
    error_message = "partition 1 alone should be behind"
  }
  expect_failures = [terraform_data.drop_old_schema]
}

run "no_commit_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 2 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["0"]
    values = { timestamp_offset = 2, latest_offset = 4 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["1"]
    values = { timestamp_offset = null, latest_offset = 1 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders
    values = { committed_offsets = { "orders/0" = 2, "orders/1" = null } }
  }
  assert {
    condition     = local.behind == ["orders/1 (committed none, needs 1)"]
    error_message = "partition 1 should be behind, without a commit"
  }
  expect_failures = [terraform_data.drop_old_schema]
}

run "commit_past_the_log_end_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 2 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["0"]
    values = { timestamp_offset = 2, latest_offset = 4 }
  }
  override_data {
    target = data.kafka_partition_offsets.at_cut_over["1"]
    values = { timestamp_offset = null, latest_offset = 1 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders
    values = { committed_offsets = { "orders/0" = 5, "orders/1" = 1 } }
  }
  assert {
    condition     = local.behind == ["orders/0 (committed 5, needs 2)"]
    error_message = "partition 0's commit past the log end should block"
  }
  expect_failures = [terraform_data.drop_old_schema]
}

# A bare mock: partition_count 0, no partition read, no commit. No verdict must not pass.
run "bare_mock_blocks" {
  command         = plan
  expect_failures = [terraform_data.drop_old_schema]
}
