# Against a broker, no mocks: TestAccRecipeBroker_liveTopicTimeLag arranges invoices (2 partitions:
# on partition 0 a record an hour old, then 2 fresh ones; on partition 1 a fresh one),
# billing-service committed at 0 and 1 (an hour behind on partition 0), and billing-service-v2 at
# the log end (3 and 1).
run "an_hour_behind_blocks" {
  command         = plan
  expect_failures = [terraform_data.billing_rollout]
}

# The value the precondition read (the data source alone: the precondition not evaluated). An hour
# and the test's own time, under 100 s.
run "reads_the_time_lag" {
  command = plan
  plan_options {
    target = [data.kafka_consumer_group_offsets.billing]
  }
  assert {
    condition     = data.kafka_consumer_group_offsets.billing.max_time_lag_ms >= 3600000 && data.kafka_consumer_group_offsets.billing.max_time_lag_ms < 3700000
    error_message = "billing-service is an hour behind, not ${data.kafka_consumer_group_offsets.billing.max_time_lag_ms} ms"
  }
}

# The apply meant to wait: billing-service-v2 is at the log end, so the wait returns at its first read.
run "apply_with_the_trigger_finds_v2_caught_up" {
  command = apply
  variables {
    wait_for_catch_up = true
  }
  plan_options {
    target = [data.kafka_consumer_group_offsets.billing_v2_current]
  }
  assert {
    condition     = data.kafka_consumer_group_offsets.billing_v2_current.max_time_lag_ms == 0 && data.kafka_consumer_group_offsets.billing_v2_current.caught_up
    error_message = "billing-service-v2 has read everything"
  }
}
