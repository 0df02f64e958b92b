# Against a broker, no mocks: TestAccRecipeBroker_waitForDrain arranges orders (2 partitions, 3
# records on partition 0 and 1 on partition 1) and orders-service committed at 1 and 1: 2 records
# behind. Were the wait on, each run would wait the recipe's 10 minutes and fail on its timeout.

# The apply without -var wait_for_drain=true reads the group once and refuses the cut-over.
run "apply_without_the_trigger_does_not_wait" {
  command         = apply
  expect_failures = [terraform_data.cut_over]
}

# stop_old_producers applied: a later plan reads the group, once, and blocks.
run "later_plan_reads_once_and_blocks" {
  command         = plan
  expect_failures = [terraform_data.cut_over]
}

# What that plan read (the data source alone: the precondition not evaluated).
run "later_plan_reads_the_lag" {
  command = plan
  plan_options {
    target = [data.kafka_consumer_group_offsets.orders_drained]
  }
  assert {
    condition     = !data.kafka_consumer_group_offsets.orders_drained.caught_up && data.kafka_consumer_group_offsets.orders_drained.total_lag == 2
    error_message = "orders-service is 2 records behind on orders"
  }
  assert {
    condition     = data.kafka_consumer_group_offsets.orders_drained.not_caught_up == tolist(["orders/0: lag 2 (committed_offset 1, latest_offset 3)"])
    error_message = "not_caught_up names partition 0 only: ${jsonencode(data.kafka_consumer_group_offsets.orders_drained.not_caught_up)}"
  }
}
