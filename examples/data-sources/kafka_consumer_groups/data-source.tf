# Which consumer groups still read the topic "orders", and have they caught up?
data "kafka_consumer_groups" "orders_readers" {
  topics = ["orders"]
}

output "orders_readers" {
  value = {
    for g in data.kafka_consumer_groups.orders_readers.groups : g.group_id => {
      state          = g.state
      listed_because = g.listed_because # ["assigned"], ["committed"] or both
      total_lag      = g.total_lag      # null while a member reads a partition without a commit
    }
  }
}

# Every group whose whole id starts with "billing-", over every topic it has commits on.
data "kafka_consumer_groups" "billing" {
  group_id_regex = "billing-.*"
}
