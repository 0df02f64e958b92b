data "kafka_consumer_group_offsets" "billing" {
  group_id = "billing-service"
  topics   = ["invoices"] # optional: default is every topic the group has committed offsets for
}

output "billing_caught_up" {
  value = data.kafka_consumer_group_offsets.billing.caught_up # never null
}

output "billing_not_caught_up" {
  value = data.kafka_consumer_group_offsets.billing.not_caught_up # why not: one line per partition
}

output "billing_lag_by_partition" {
  value = {
    for p in data.kafka_consumer_group_offsets.billing.partitions : "${p.topic}/${p.partition}" => p.lag # null: no commit
  }
}
