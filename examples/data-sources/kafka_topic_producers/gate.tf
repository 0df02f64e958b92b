# Move the consumers of payments to another topic only while no transaction is open on it: records
# of an open transaction are not readable under read_committed yet (held_records), and would be
# missed if the transaction commits after the move. last_write_times has a key for every topic
# read: a bare terraform test mock (0 transactions, no topic read) never passes.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" } # not hashicorp/kafka: name it in every module that uses it
  }
}

data "kafka_topic_producers" "payments" {
  topics = ["payments"]
}

# Stands for the move (the consumers' configuration, a helm_release, ...).
resource "terraform_data" "payments_consumers_move" {
  input = "payments.v2"

  lifecycle {
    precondition {
      condition     = contains(keys(data.kafka_topic_producers.payments.last_write_times), "payments") && data.kafka_topic_producers.payments.open_transactions == 0
      error_message = "${data.kafka_topic_producers.payments.open_transactions} transaction(s) open on payments, holding back ${data.kafka_topic_producers.payments.held_records} offsets: ${join(", ", [for t in data.kafka_topic_producers.payments.transactions : t.transactional_id == null ? "producer id ${t.producer_id} (no transactional id)" : t.transactional_id])}."
    }
  }
}
