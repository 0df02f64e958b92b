# Print a topic's offsets in every plan.
terraform {
  required_version = ">= 1.10" # plantimestamp() in a data source argument: unknown while validating only from 1.10
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

data "kafka_topic_offsets" "payments" {
  topic = "payments"
}

data "kafka_partition_offsets" "payments_0_yesterday" {
  topic     = "payments"
  partition = 0
  timestamp = timeadd(plantimestamp(), "-24h")
}

output "payments" {
  value = {
    partitions    = data.kafka_topic_offsets.payments.partition_count
    message_count = data.kafka_topic_offsets.payments.message_count # an upper bound if compacted or transactional
    by_partition  = { for p in data.kafka_topic_offsets.payments.partitions : p.partition => "${p.earliest_offset}..${p.latest_offset}" }
    # Where a consumer replaying partition 0 from 24 hours ago would start (null: no record that recent).
    replay_from_yesterday = data.kafka_partition_offsets.payments_0_yesterday.timestamp_offset
  }
}
