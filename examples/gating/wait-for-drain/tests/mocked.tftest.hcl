# Unit tests of the cut-over's gate: no broker, the group's verdict set by a mock. The drain's read
# depends on stop_old_producers: the first plan leaves it to the apply, later plans read it.
mock_provider "kafka" {}

# Without -var wait_for_drain=true the group is read once: lagging, the cut-over is refused.
run "lagging_apply_refuses_the_cut_over" {
  command = apply
  override_data {
    target = data.kafka_consumer_group_offsets.orders_drained
    values = { caught_up = false, total_lag = 3, not_caught_up = ["orders/0: lag 3 (committed_offset 2, latest_offset 5)"] }
  }
  expect_failures = [terraform_data.cut_over]
}

run "drained_apply_cuts_over" {
  command = apply
  variables {
    wait_for_drain = true
  }
  override_data {
    target = data.kafka_consumer_group_offsets.orders_drained
    values = { caught_up = true, total_lag = 0, not_caught_up = [] }
  }
  assert {
    condition     = terraform_data.cut_over.output == "orders-service reads orders-v2 (caught up: true)"
    error_message = "the cut-over should be applied"
  }
}

# A later plan reads the group (stop_old_producers has no change left): lagging again, the
# precondition blocks the plan.
run "later_plan_while_lagging_blocks" {
  command = plan
  override_data {
    target = data.kafka_consumer_group_offsets.orders_drained
    values = { caught_up = false, total_lag = 1, not_caught_up = ["orders/1: lag 1 (committed_offset 0, latest_offset 1)"] }
  }
  expect_failures = [terraform_data.cut_over]
}

# A bare mock reads caught_up = false: the absence of data never cuts over.
run "bare_mock_blocks" {
  command         = plan
  expect_failures = [terraform_data.cut_over]
}
