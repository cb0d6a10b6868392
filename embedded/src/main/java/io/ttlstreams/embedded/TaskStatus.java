package io.ttlstreams.embedded;

/**
 * A connector task's state as the worker reports it.
 *
 * @param id    the task number
 * @param state UNASSIGNED, RUNNING, PAUSED, FAILED or RESTARTING
 * @param trace the failure's stack trace when FAILED, else null
 */
public record TaskStatus(int id, String state, String trace) {}
