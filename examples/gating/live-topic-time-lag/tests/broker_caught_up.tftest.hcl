# Against a broker, no mocks: then TestAccRecipeBroker_liveTopicTimeLag commits billing-service at 1
# and 1: what it reads next on partition 0 was written a moment ago.
run "seconds_behind_rolls_out" {
  command = plan
  assert {
    condition     = terraform_data.billing_rollout.input == "billing-service v2"
    error_message = "the rollout should be planned"
  }
  assert {
    condition     = data.kafka_consumer_group_offsets.billing.max_time_lag_ms <= 60000
    error_message = "billing-service is ${data.kafka_consumer_group_offsets.billing.max_time_lag_ms} ms behind"
  }
}
