# A gate before retiring a topic: nobody wrote to it in the last 7 days, and no transaction
# hangs there. last_write_time is the largest record timestamp (null when the topic holds no
# record): it also sees producers without idempotence, which leave no producer state.
data "kafka_topic_producers" "retiring" {
  topics = ["legacy.a"]
}

resource "terraform_data" "retire_legacy_a" {
  lifecycle {
    precondition {
      condition = timecmp(
        coalesce(data.kafka_topic_producers.retiring.last_write_time, "1970-01-01T00:00:00Z"),
        timeadd(plantimestamp(), "-168h"),
      ) < 0
      error_message = "legacy.a was written in the last 7 days (last record at ${coalesce(data.kafka_topic_producers.retiring.last_write_time, "none")}): find its writers before retiring it."
    }
    precondition {
      condition     = data.kafka_topic_producers.retiring.hanging_transactions == 0
      error_message = "A transaction hangs on legacy.a: ${join("; ", [for t in data.kafka_topic_producers.retiring.transactions : t.hanging_reason == null ? "" : t.hanging_reason if t.hanging])}"
    }
  }
}

# Which transactions hold read_committed consumers of "orders.*" back, and who writes there.
data "kafka_topic_producers" "orders" {
  name_regex = "orders\\..*"
}

output "orders_writers" {
  value = {
    held_records = data.kafka_topic_producers.orders.held_records
    transactions = [for t in data.kafka_topic_producers.orders.transactions : {
      transactional_id = t.transactional_id
      state            = t.state
      hanging          = t.hanging
    }]
    producer_ids = distinct(flatten([for topic in data.kafka_topic_producers.orders.selected_topics :
    [for p in topic.partitions : p.producers[*].producer_id]]))
  }
}
