# The configuration `make demo` plans against a local broker: the offsets of the three
# partitions of topic "users". Run it yourself with a local build (CONTRIBUTING.md, "Using a local build").
terraform {
  required_providers {
    kafka = {
      source = "kafka-offsets/kafka"
    }
  }
}

variable "bootstrap_servers" {
  description = "Kafka brokers, host:port each; null to take KAFKA_BOOTSTRAP_SERVERS from the environment."
  type        = list(string)
  default     = null
}

provider "kafka" {
  bootstrap_servers = var.bootstrap_servers
}

data "kafka_partition_offsets" "users" {
  count     = 3
  topic     = "users"
  partition = count.index
}

output "users" {
  description = "Earliest (log start) and latest (high watermark) offset of each partition of topic users."
  value = {
    for p in data.kafka_partition_offsets.users : p.partition => {
      earliest = p.earliest_offset
      latest   = p.latest_offset
    }
  }
}
