# Against a broker, no mocks: TestAccRecipeBroker_firstRollout arranges shipments (2 partitions, 3
# records on partition 0 and 1 on partition 1) and no group shipping-service: the new consumer has
# not committed yet.

# The apply without -var wait_for_catch_up=true deploys, reads the group once, and refuses the
# cut-over: the group does not exist.
run "apply_without_the_trigger_refuses_the_cut_over" {
  command         = apply
  expect_failures = [terraform_data.cut_over]
}

# What a later plan reads (the data source alone: the precondition not evaluated).
run "later_plan_reads_no_group" {
  command = plan
  plan_options {
    target = [data.kafka_consumer_group_offsets.shipping]
  }
  assert {
    condition     = !data.kafka_consumer_group_offsets.shipping.exists && !data.kafka_consumer_group_offsets.shipping.caught_up
    error_message = "shipping-service should not exist yet"
  }
  assert {
    condition     = length(data.kafka_consumer_group_offsets.shipping.not_caught_up) == 1 && startswith(data.kafka_consumer_group_offsets.shipping.not_caught_up[0], "consumer group \"shipping-service\" does not exist")
    error_message = "not_caught_up should say the group does not exist: ${jsonencode(data.kafka_consumer_group_offsets.shipping.not_caught_up)}"
  }
}
