# Cut the producers of orders over to a new topic only once every group that reads orders has
# caught up. caught_up is true only when at least one group reads it and each has caught up: a
# topic nobody reads gives false, since no reader vouches for its records.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" } # not hashicorp/kafka: name it in every module that uses it
  }
}

data "kafka_consumer_groups" "orders_gate" {
  topics = ["orders"]
}

# Stands for the cut-over (a producer's configuration, a helm_release, ...).
resource "terraform_data" "orders_cut_over" {
  input = "orders.v2"

  lifecycle {
    precondition {
      condition = data.kafka_consumer_groups.orders_gate.caught_up
      error_message = (length(data.kafka_consumer_groups.orders_gate.group_ids) == 0
        ? "No consumer group reads orders: none vouches that its records were read."
      : "Not every reader of orders has caught up: ${join("; ", data.kafka_consumer_groups.orders_gate.not_caught_up)}.")
    }
  }
}
