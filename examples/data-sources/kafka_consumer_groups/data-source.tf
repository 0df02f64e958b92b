# Which consumer groups still read the topic "orders", and have they caught up?
data "kafka_consumer_groups" "orders_readers" {
  topics = ["orders"]
}

output "orders_readers_caught_up" {
  # false where no group reads orders: group_ids says whether any does.
  value = data.kafka_consumer_groups.orders_readers.caught_up
}

output "orders_readers" {
  value = {
    for g in data.kafka_consumer_groups.orders_readers.groups : g.group_id => {
      state          = g.state
      listed_because = g.listed_because # ["assigned"], ["committed"] or both
      total_lag      = g.total_lag      # null where no lag measures the position (no commit where records wait)
    }
  }
}

# Every group whose whole id starts with "billing-", over every topic it has commits on.
data "kafka_consumer_groups" "billing" {
  group_id_regex = "billing-.*"
}
