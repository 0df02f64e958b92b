# The partition Kafka's default partitioner picks for the key "tenant-42" in a topic of 12
# partitions (as the Java client does: murmur2 of the key's UTF-8 bytes, made positive, modulo 12).
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" } # not hashicorp/kafka: name it in every module that uses it
  }
}

output "tenant_42_partition" {
  value = provider::kafka::partition_for_key("tenant-42", 12)
}

# With the topic's current partition count.
data "kafka_topic_offsets" "orders" {
  topic = "orders"
}

output "tenant_42_orders_partition" {
  value = provider::kafka::partition_for_key("tenant-42", data.kafka_topic_offsets.orders.partition_count)
}
