# Unit tests of the gate: no broker, the data source's values set by a mock. The gate reads
# caught_up, which a bare mock sets to false: a test without an override refuses the rollout.
mock_provider "kafka" {}

variables {
  release = "v2"
}

run "caught_up_rolls_out" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.billing
    values = { caught_up = true, not_caught_up = [] }
  }
  assert {
    condition     = terraform_data.billing_rollout.input == "v2"
    error_message = "the rollout should be planned"
  }
}

run "lagging_blocks" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.billing
    values = { caught_up = false, not_caught_up = ["invoices/0: lag 3 (committed_offset 2, latest_offset 5)"] }
  }
  expect_failures = [terraform_data.billing_rollout]
}

# A bare mock reads caught_up = false: the absence of data never rolls out.
run "bare_mock_blocks" {
  command         = plan
  expect_failures = [terraform_data.billing_rollout]
}
