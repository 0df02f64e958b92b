# "After switching producers, wait until the consumers have caught up, then go on." Terraform reads
# a data source during plan unless it depends on a change not yet applied: here during the apply that
# stops the old producers, and during every later plan. So the wait is off unless the apply meant to
# wait turns it on (`terraform apply -var wait_for_drain=true`): then its wait block reads again every
# poll_interval until the group has caught up, and fails the apply with the partitions still behind
# when the timeout runs out. Without it the data source reads once, and the cut-over's precondition
# refuses to go on while the group lags: no apply cuts over before the drain, waiting or not.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "wait_for_drain" {
  description = "Set only by the apply run meant to wait, e.g. terraform apply -var wait_for_drain=true: otherwise the group is read once, and every plan returns at once."
  type        = bool
  default     = false
}

# Stands for the change that stops the old producers (for example a deployment scaled to zero).
resource "terraform_data" "stop_old_producers" {
  input = "orders-producer-v1: 0 replicas"
}

data "kafka_consumer_group_offsets" "orders_drained" {
  group_id = "orders-service"
  topics   = ["orders"] # every partition of orders must have a commit

  wait {
    enabled       = var.wait_for_drain
    max_total_lag = 0
    timeout       = "10m" # then the apply fails, naming the partitions still behind
    poll_interval = "5s"
  }

  depends_on = [terraform_data.stop_old_producers]
}

# Stands for the change that must wait for the drain (for example switching consumers to a new topic).
resource "terraform_data" "cut_over" {
  input = "orders-service reads orders-v2 (caught up: ${data.kafka_consumer_group_offsets.orders_drained.caught_up})" # never null, unlike total_lag

  lifecycle {
    precondition {
      # The wait's verdict, also when the wait is off: caught_up is false for anything the cluster
      # does not vouch for (a lag, a partition without a commit where records wait).
      condition     = data.kafka_consumer_group_offsets.orders_drained.caught_up
      error_message = "orders-service has not caught up on orders: ${join("; ", data.kafka_consumer_group_offsets.orders_drained.not_caught_up)}. Cut over once it has (terraform apply -var wait_for_drain=true waits for it)."
    }
  }
}
