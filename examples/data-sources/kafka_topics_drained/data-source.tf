# Is every topic of the legacy. prefix drained, and who still reads them?
data "kafka_topics_drained" "legacy" {
  name_regex = "legacy\\..*" # whole names: legacy.a, legacy.b; not prelegacy.a
  quiet_for  = "720h"
}

output "legacy_drained" {
  value = {
    drained         = data.kafka_topics_drained.legacy.drained
    not_drained     = data.kafka_topics_drained.legacy.not_drained
    selected_topics = data.kafka_topics_drained.legacy.selected_topics
    readers         = data.kafka_topics_drained.legacy.group_ids
    last_write_time = data.kafka_topics_drained.legacy.last_write_time
  }
}
