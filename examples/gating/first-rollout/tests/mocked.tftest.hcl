# Unit tests of the cut-over's gate: no broker, the group's verdict set by a mock. The group's read
# depends on deploy_shipping_service: the first apply reads it after the deployment, later plans
# read it at once.
mock_provider "kafka" {}

# The first apply, without -var wait_for_catch_up=true: the consumer has not committed yet, so its
# group does not exist (allow_missing reads exists = false), and the cut-over is refused.
run "group_not_there_yet_refuses_the_cut_over" {
  command = apply
  override_data {
    target = data.kafka_consumer_group_offsets.shipping
    values = { exists = false, caught_up = false, not_caught_up = ["consumer group \"shipping-service\" does not exist: its coordinator neither describes nor lists it (state \"Dead\") and OffsetFetch answers no committed offset for it"] }
  }
  expect_failures = [terraform_data.cut_over]
}

# The group exists and lags: refused as well.
run "lagging_blocks" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.shipping
    values = { exists = true, caught_up = false, not_caught_up = ["shipments/0: lag 3 (committed_offset 2, latest_offset 5)"] }
  }
  expect_failures = [terraform_data.cut_over]
}

# The apply meant to wait: the group has caught up, and the cut-over is applied.
run "caught_up_apply_cuts_over" {
  command = apply
  variables {
    wait_for_catch_up = true
  }
  override_data {
    target = data.kafka_consumer_group_offsets.shipping
    values = { exists = true, caught_up = true, not_caught_up = [] }
  }
  assert {
    condition     = terraform_data.cut_over.output == "shipments read by shipping-service (caught up: true)"
    error_message = "the cut-over should be applied"
  }
}

# A bare mock reads caught_up = false: the absence of data never cuts over.
run "bare_mock_blocks" {
  command         = plan
  expect_failures = [terraform_data.cut_over]
}
