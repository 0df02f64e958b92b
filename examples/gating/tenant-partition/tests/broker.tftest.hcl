# On the broker, as TestAccRecipeBroker_tenantPartition arranges it: orders has 3 partitions;
# franz-go's default partitioner put tenant-42's 2 records in partition 2 and other tenants'
# elsewhere; orders-service has committed at 1 on partition 2 (1 behind) and nowhere else.
run "tenant_behind_blocks" {
  command = plan
  assert {
    condition     = data.kafka_topic_offsets.orders.partition_count == 3 && local.tenant_partition == 2
    error_message = "tenant-42's partition of 3 should be 2"
  }
  assert {
    condition     = local.latest_offset == 2 && local.tenant_commit == 1
    error_message = "partition 2 should end at 2, with orders-service's commit at 1"
  }
  expect_failures = [terraform_data.migrate_tenant_42]
}
