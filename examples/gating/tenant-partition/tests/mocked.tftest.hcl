# Unit tests of the gate: no broker, the data sources' values set by a mock. With 3 partitions,
# tenant-42's is partition 2. A bare mock reads partition_count 0 and no commit: the gate blocks.
mock_provider "kafka" {}

run "tenant_caught_up_migrates" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 3 }
  }
  override_data {
    target = data.kafka_partition_offsets.tenant
    values = { latest_offset = 5 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders_service
    values = { committed_offsets = { "orders/0" = 0, "orders/1" = null, "orders/2" = 5 } } # the others may lag
  }
  assert {
    condition     = local.tenant_partition == 2 && data.kafka_partition_offsets.tenant.partition == 2
    error_message = "tenant-42's partition of 3 should be 2"
  }
  assert {
    condition     = terraform_data.migrate_tenant_42.input == "tenant-42 → new cluster"
    error_message = "the migration should be planned"
  }
}

run "tenant_lagging_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 3 }
  }
  override_data {
    target = data.kafka_partition_offsets.tenant
    values = { latest_offset = 5 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders_service
    values = { committed_offsets = { "orders/0" = 5, "orders/1" = 5, "orders/2" = 3 } }
  }
  expect_failures = [terraform_data.migrate_tenant_42]
}

run "no_commit_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 3 }
  }
  override_data {
    target = data.kafka_partition_offsets.tenant
    values = { latest_offset = 5 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders_service
    values = { committed_offsets = { "orders/0" = 5, "orders/1" = 5 } }
  }
  expect_failures = [terraform_data.migrate_tenant_42]
}

# Stricter than the group's caught_up, which passes a partition with no commit and no record:
# nothing here vouches for where the group would start.
run "no_commit_on_an_empty_partition_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 3 }
  }
  override_data {
    target = data.kafka_partition_offsets.tenant
    values = { latest_offset = 0 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders_service
    values = { committed_offsets = { "orders/2" = null } }
  }
  expect_failures = [terraform_data.migrate_tenant_42]
}

run "commit_past_the_log_end_blocks" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.orders
    values = { partition_count = 3 }
  }
  override_data {
    target = data.kafka_partition_offsets.tenant
    values = { latest_offset = 5 }
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders_service
    values = { committed_offsets = { "orders/2" = 9 } }
  }
  expect_failures = [terraform_data.migrate_tenant_42]
}

# A bare mock: no partition (the recipe reads partition 0 rather than ask partition_for_key about
# 0 partitions) and no commit. The absence of data never migrates.
run "bare_mock_blocks" {
  command         = plan
  expect_failures = [terraform_data.migrate_tenant_42]
}
