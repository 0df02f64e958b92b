# "After switching producers, wait until the consumers have caught up, then go on." The data source
# depends on the change that starts the drain, so Terraform reads it during apply, after that change;
# its wait block reads again every poll_interval until the group has caught up, and fails the apply
# with the partitions still behind when the timeout runs out. The cut-over depends on the data source,
# so it happens only once the group is done.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "wait_for_drain" {
  description = "Set only by the apply that switches producers (terraform apply -var wait_for_drain=true): every other plan reads the group once and never waits."
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
    enabled       = var.wait_for_drain # Terraform reads this during every plan that changes nothing it depends on
    max_total_lag = 0
    timeout       = "10m" # then the apply fails, naming the partitions still behind
    poll_interval = "5s"
  }

  depends_on = [terraform_data.stop_old_producers]
}

# Stands for the change that must wait for the drain (for example switching consumers to a new topic).
resource "terraform_data" "cut_over" {
  input = "orders-service reads orders-v2 (lag was ${data.kafka_consumer_group_offsets.orders_drained.total_lag})"
}
