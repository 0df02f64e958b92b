# Unit tests of the check: no broker, the group's verdict set by a mock. A check block never blocks:
# a failed assertion is a warning, which expect_failures names.
mock_provider "kafka" {}

# A check's failed assertion fails a run that does not expect it: this run passes only where the
# check does not warn. (An assert cannot name the check's scoped data source.)
run "caught_up_passes" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.orders
    values = { caught_up = true, not_caught_up = [], state = "Stable" }
  }
}

run "lagging_warns" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.orders
    values = { caught_up = false, state = "Empty", not_caught_up = ["orders/0: lag 3 (committed_offset 2, latest_offset 5)"] }
  }
  expect_failures = [check.orders_consumer_caught_up]
}

# A bare mock's caught_up is false: a read that says nothing never passes the check.
run "bare_mock_warns" {
  command         = plan
  expect_failures = [check.orders_consumer_caught_up]
}
