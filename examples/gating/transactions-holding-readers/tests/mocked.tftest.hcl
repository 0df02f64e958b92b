# Unit tests of the check: no broker, the data source's values set by a mock. The condition reads
# hanging_transactions alone, a top-level value a mock sets; the message's details come from
# selected_topics and transactions, which a mock cannot set (hashicorp/terraform#37939) and leaves
# empty.
mock_provider "kafka" {}

run "open_transaction_not_hanging_passes" {
  command = plan
  override_data {
    target = data.kafka_topic_producers.orders
    values = { open_transactions = 1, hanging_transactions = 0, held_records = 1 }
  }
}

run "hanging_transaction_warns" {
  command = plan
  override_data {
    target = data.kafka_topic_producers.orders
    values = { open_transactions = 1, hanging_transactions = 1, held_records = 3 }
  }
  expect_failures = [check.no_transaction_holds_orders_readers]
}
