# Unit tests of the gate: no broker, the group's time lag set by a mock. A bare mock's
# max_time_lag_ms is 0, which alone would pass: the gate also requires exists, which a bare mock
# reads as false, so every run that rolls out sets it.
mock_provider "kafka" {}

run "at_the_limit_rolls_out" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.billing
    values = { exists = true, max_time_lag_ms = 60000, caught_up = false } # a live topic: never caught up
  }
  assert {
    condition     = terraform_data.billing_rollout.input == "billing-service v2"
    error_message = "the rollout should be planned at 60000 ms"
  }
}

run "a_millisecond_over_blocks" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.billing
    values = { exists = true, max_time_lag_ms = 60001 }
  }
  expect_failures = [terraform_data.billing_rollout]
}

# null: a partition's age is unknown (no commit where records wait, a commit past the log end).
run "unknown_age_blocks" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.billing
    values = { exists = true, max_time_lag_ms = null, not_caught_up = ["invoices/1: no committed offset, 4 record(s) waiting"] }
  }
  expect_failures = [terraform_data.billing_rollout]
}

# A bare mock: max_time_lag_ms 0, exists false. The absence of data never rolls out.
run "bare_mock_blocks" {
  command         = plan
  expect_failures = [terraform_data.billing_rollout]
}
