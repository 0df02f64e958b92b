# Start a replay of payments/0 from a saved offset only while the partition still holds it:
# retention and DeleteRecords move earliest_offset forward, and a consumer asked to start below it
# resets (auto.offset.reset) instead of replaying. exists is true on every read that succeeds: a
# bare terraform test mock (offsets 0, exists false) never passes.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" } # not hashicorp/kafka: name it in every module that uses it
  }
}

variable "replay_from_offset" {
  type     = number
  default  = 0
  nullable = false
}

data "kafka_partition_offsets" "replay" {
  topic     = "payments"
  partition = 0
}

# Stands for the replay job (a Kubernetes job, a consumer started at that offset, ...).
resource "terraform_data" "payments_replay" {
  input = var.replay_from_offset

  lifecycle {
    precondition {
      condition = (data.kafka_partition_offsets.replay.exists
        && var.replay_from_offset >= data.kafka_partition_offsets.replay.earliest_offset
      && var.replay_from_offset <= data.kafka_partition_offsets.replay.latest_offset)
      error_message = "payments/0 holds offsets ${data.kafka_partition_offsets.replay.earliest_offset} to ${data.kafka_partition_offsets.replay.latest_offset}: offset ${var.replay_from_offset} is not among them."
    }
  }
}
