data "kafka_consumer_group_offsets" "billing" {
  group_id = "billing-service"
  topics   = ["invoices"] # optional: default is every topic the group has committed offsets for
}

output "billing_caught_up" {
  value = data.kafka_consumer_group_offsets.billing.total_lag == 0
}

output "billing_lag_by_partition" {
  value = {
    for p in data.kafka_consumer_group_offsets.billing.partitions : "${p.topic}/${p.partition}" => p.lag # null: no commit
  }
}
