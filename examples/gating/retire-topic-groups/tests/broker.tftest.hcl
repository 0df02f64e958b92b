# On the broker, as TestAccRecipeBroker_retireTopicGroups arranges it: legacy.a holds 2 records and
# legacy.b 1, all stamped 8 days ago; legacy-billing has committed at legacy.a's log end, and
# legacy-audit at 0 on legacy.b (1 behind). Quiet, but a reader is behind: the gate blocks.
run "values" {
  command = plan
  assert {
    condition     = data.kafka_topics_drained.legacy.selected_topics == tolist(["legacy.a", "legacy.b"])
    error_message = "both topics should be selected"
  }
  assert {
    condition     = timecmp(data.kafka_topics_drained.legacy.last_write_time, timeadd(plantimestamp(), "-168h")) < 0
    error_message = "the last write (8 days ago) should read as quiet"
  }
  assert {
    condition     = output.legacy_readers == tolist(["legacy-audit", "legacy-billing"]) && !data.kafka_topics_drained.legacy.drained
    error_message = "both readers should be listed, and the topics not drained"
  }
  assert {
    condition     = length(data.kafka_topics_drained.legacy.not_drained) == 1 && startswith(data.kafka_topics_drained.legacy.not_drained[0], join(" ", ["group", "legacy-audit", "has not caught up: "])) && strcontains(data.kafka_topics_drained.legacy.not_drained[0], ": ${"legacy.b"}/0: lag 1 ")
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
