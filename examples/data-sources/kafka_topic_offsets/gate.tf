# Delete topic audit (to recreate it with more partitions) only while it holds no record: its
# records would go with it. message_count == 0 means empty; "drained" (every reader has read
# everything) is kafka_consumer_groups' caught_up. exists is true on every read that succeeds: a
# bare terraform test mock (message_count 0, exists false) never passes.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" } # not hashicorp/kafka: name it in every module that uses it
  }
}

data "kafka_topic_offsets" "audit" {
  topic = "audit"
}

# Stands for the change that deletes the topic (a kafka_topic resource's partitions, ...).
resource "terraform_data" "audit_repartition" {
  input = 6 # the new partition count

  lifecycle {
    precondition {
      condition     = data.kafka_topic_offsets.audit.exists && data.kafka_topic_offsets.audit.message_count == 0
      error_message = "audit still holds records: ${data.kafka_topic_offsets.audit.message_count} offsets over its ${data.kafka_topic_offsets.audit.partition_count} partitions."
    }
  }
}
