# On the broker, once orders-service has committed at 2 on partition 2, tenant-42's
# (TestAccRecipeBroker_tenantPartition); it has no commit on the other partitions, which hold
# other tenants' records: the tenant's gate passes.
run "tenant_caught_up_migrates" {
  command = plan
  assert {
    condition     = local.tenant_commit == 2 && local.latest_offset == 2
    error_message = "orders-service should have committed at partition 2's log end, 2"
  }
  assert {
    condition     = !data.kafka_consumer_group_offsets.orders_service.caught_up
    error_message = "the group as a whole should not be caught up (other tenants' partitions)"
  }
  assert {
    condition     = terraform_data.migrate_tenant_42.input == "tenant-42 → new cluster"
    error_message = "the migration should be planned"
  }
}
