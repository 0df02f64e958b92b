# Against a broker, no mocks: TestAccRecipeBroker_checkLag arranges orders (2 partitions, 3 records
# on partition 0 and 1 on partition 1) and orders-service committed at 1 and 1: 2 records behind.
run "behind_warns" {
  command         = plan
  expect_failures = [check.orders_consumer_caught_up]
}
