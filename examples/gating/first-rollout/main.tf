# "Deploy a new consumer, then cut over once it has caught up": the first rollout of a consumer
# whose group does not exist yet. Its group appears with its first commit, after the apply that
# deploys it, so the read depends on the deployment (depends_on: Terraform reads it during that
# apply, after the deployment, and during every later plan), allows the group to be missing
# (allow_missing: exists = false, caught_up = false, instead of "Consumer group not found"), and
# waits only in the apply meant to wait (terraform apply -var wait_for_catch_up=true): a group not
# found yet is waited for, then its lag. Without the variable the group is read once, and the
# cut-over's precondition refuses to go on until it has caught up: caught_up is true only when
# the read proves it, never for a group nobody runs yet, nor for a bare terraform test mock.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "wait_for_catch_up" {
  description = "Set only by the apply run meant to wait, e.g. terraform apply -var wait_for_catch_up=true: otherwise shipping-service is read once, and every plan returns at once."
  type        = bool
  default     = false
}

# Stands for the new consumer's deployment (a helm_release, an ECS service, ...): its first commit
# creates the group shipping-service.
resource "terraform_data" "deploy_shipping_service" {
  input = "shipping-service v1: 3 replicas"
}

data "kafka_consumer_group_offsets" "shipping" {
  group_id      = "shipping-service"
  topics        = ["shipments"] # every partition of shipments must have a commit
  allow_missing = true          # the group does not exist before the consumer's first commit

  wait {
    enabled       = var.wait_for_catch_up
    timeout       = "15m" # then the apply fails, saying the group does not exist yet or where it lags
    poll_interval = "5s"
  }

  depends_on = [terraform_data.deploy_shipping_service]
}

# Stands for the change that must wait for the new consumer (the old one scaled down, traffic
# switched, ...).
resource "terraform_data" "cut_over" {
  input = "shipments read by shipping-service (caught up: ${data.kafka_consumer_group_offsets.shipping.caught_up})" # never null

  lifecycle {
    precondition {
      # caught_up is false for a group that does not exist yet (exists = false), a lag, or a
      # partition without a commit where records wait: not_caught_up says which.
      condition     = data.kafka_consumer_group_offsets.shipping.caught_up
      error_message = "shipping-service has not caught up on shipments: ${join("; ", data.kafka_consumer_group_offsets.shipping.not_caught_up)}. Cut over once it has (terraform apply -var wait_for_catch_up=true waits for it)."
    }
  }
}
