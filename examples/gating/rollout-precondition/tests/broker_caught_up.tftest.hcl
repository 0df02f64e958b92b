# Against a broker, no mocks: then TestAccRecipeBroker_rolloutPrecondition commits billing-service
# at the log end (3 and 1).
variables {
  release = "v2"
}

run "caught_up_rolls_out" {
  command = plan
  assert {
    condition     = terraform_data.billing_rollout.input == "v2"
    error_message = "the rollout should be planned"
  }
  assert {
    condition     = data.kafka_consumer_group_offsets.billing.caught_up && data.kafka_consumer_group_offsets.billing.total_lag == 0 && length(data.kafka_consumer_group_offsets.billing.not_caught_up) == 0
    error_message = "billing-service has caught up: ${jsonencode(data.kafka_consumer_group_offsets.billing.not_caught_up)}"
  }
}
