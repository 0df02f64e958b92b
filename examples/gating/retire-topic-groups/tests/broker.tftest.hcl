# On the broker, as TestAccRecipeBroker_retireTopicGroups arranges it: legacy.a holds 2 records and
# legacy.b 1, all stamped 8 days ago; legacy-billing has committed at legacy.a's log end, and
# legacy-audit at 0 on legacy.b (1 behind). Quiet, but a reader is behind: the gate blocks.
run "values" {
  command = plan
  assert {
    condition     = data.kafka_topics_offsets.legacy.message_counts == tomap({ "legacy.a" = 2, "legacy.b" = 1 })
    error_message = "message_counts should be legacy.a = 2, legacy.b = 1"
  }
  assert {
    condition     = data.kafka_topics_offsets.legacy.topics_with_records == tolist(["legacy.a", "legacy.b"])
    error_message = "both topics hold records"
  }
  assert {
    condition     = !local.written && timecmp(data.kafka_topics_offsets.legacy.last_write_time, timeadd(plantimestamp(), "-168h")) < 0
    error_message = "the last write (8 days ago) should read as quiet"
  }
  assert {
    condition     = output.legacy_readers == tolist(["legacy-audit", "legacy-billing"]) && !data.kafka_consumer_groups.legacy_readers[0].caught_up
    error_message = "both readers should be listed, not all caught up"
  }
  assert {
    condition     = length(local.lagging) == 1 && startswith(local.lagging[0], "legacy-audit: ") && strcontains(local.lagging[0], "legacy.b/0: ")
    error_message = "legacy-audit alone should be behind, on legacy.b/0"
  }
}

run "reader_behind_blocks" {
  command = plan
  variables {
    retire_legacy_topics = true
  }
  expect_failures = [terraform_data.legacy_retirement_gate]
}
