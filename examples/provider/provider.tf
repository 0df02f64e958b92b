terraform {
  required_providers {
    kafka = {
      source = "kafka-offsets/kafka"
    }
  }
}

provider "kafka" {
  # One host:port per element. Or leave it out and set KAFKA_BOOTSTRAP_SERVERS="broker-1:9092,broker-2:9092".
  bootstrap_servers = ["broker-1:9092", "broker-2:9092"]

  client_id = "terraform-provider-kafka" # Kafka client.id, as seen in broker logs and quotas
  timeout   = "30s"                      # bounds each data source read; or KAFKA_TIMEOUT
}
