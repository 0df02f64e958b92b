# Against a broker, no mocks: TestAccRecipeBroker_rolloutPrecondition arranges invoices (2
# partitions, 3 records on partition 0 and 1 on partition 1) and billing-service committed at 1 and
# 1: 2 records behind on partition 0.
variables {
  release = "v2"
}

run "behind_blocks" {
  command         = plan
  expect_failures = [terraform_data.billing_rollout]
}

# The values the precondition read, exactly (the data source alone: the precondition not evaluated).
run "reads_the_lag" {
  command = plan
  plan_options {
    target = [data.kafka_consumer_group_offsets.billing]
  }
  assert {
    condition     = !data.kafka_consumer_group_offsets.billing.caught_up && data.kafka_consumer_group_offsets.billing.total_lag == 2
    error_message = "billing-service is 2 records behind on invoices"
  }
  assert {
    condition     = data.kafka_consumer_group_offsets.billing.not_caught_up == tolist(["invoices/0: lag 2 (committed_offset 1, latest_offset 3)"])
    error_message = "not_caught_up names partition 0 only: ${jsonencode(data.kafka_consumer_group_offsets.billing.not_caught_up)}"
  }
}
