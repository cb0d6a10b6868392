package io.ttlstreams.processor;

import io.ttlstreams.state.ExpirySchedule;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * What every part of one task's scheduler works with: the settings, the task's schedule, the sensors it counts with,
 * the audit writer and the task's context. Built once per task in {@link ExpirySchedulerProcessor#init}, so that the
 * parts ({@link EventApplier}, {@link DueDrain}, {@link CommandSender}, {@link RuleReconciler}, {@link
 * BlastRadiusGuard}) take it whole and name only what is theirs alone.
 *
 * @param settings rules, punctuation bounds, throttle, confirmation, read-back, dry run
 * @param schedule the task's schedule
 * @param sensors what the parts count
 * @param audit where each step is audited
 * @param context the task's context: its id, its clock, and forwarding to the scheduler's nodes
 */
record TaskScope(
        SchedulerSettings settings,
        ExpirySchedule schedule,
        SchedulerSensors sensors,
        AuditWriter audit,
        ProcessorContext<String, Object> context) {}
