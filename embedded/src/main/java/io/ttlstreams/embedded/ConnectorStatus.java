package io.ttlstreams.embedded;

import java.util.List;
import java.util.Objects;

/**
 * A connector's state as the worker reports it.
 *
 * @param name  the connector name
 * @param state UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED or RESTARTING
 * @param trace the failure's stack trace when FAILED, else null
 * @param tasks the states of its tasks (empty until the tasks are started)
 */
public record ConnectorStatus(String name, String state, String trace, List<TaskStatus> tasks) {

    /**
     * Validates and copies.
     *
     * @param name  the connector name
     * @param state the connector's state
     * @param trace the connector's failure trace, or null
     * @param tasks the task states
     */
    public ConnectorStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        tasks = List.copyOf(tasks);
    }

    /** @return true when the connector and at least one task exist and all are RUNNING */
    public boolean isRunning() {
        return "RUNNING".equals(state)
                && !tasks.isEmpty()
                && tasks.stream().allMatch(task -> "RUNNING".equals(task.state()));
    }

    /** @return true when the connector and at least one task exist and all are PAUSED */
    public boolean isPaused() {
        return "PAUSED".equals(state)
                && !tasks.isEmpty()
                && tasks.stream().allMatch(task -> "PAUSED".equals(task.state()));
    }

    /** @return true when the connector or any task FAILED */
    public boolean isFailed() {
        return "FAILED".equals(state) || tasks.stream().anyMatch(task -> "FAILED".equals(task.state()));
    }

    /** @return a multi-line description including every trace, for error messages and the CLI */
    public String describe() {
        StringBuilder text =
                new StringBuilder("connector ").append(name).append(": ").append(state);
        if (trace != null) {
            text.append('\n').append(trace);
        }
        if (tasks.isEmpty()) {
            text.append("\n  no tasks yet");
        }
        for (TaskStatus task : tasks) {
            text.append("\n  task ").append(task.id()).append(": ").append(task.state());
            if (task.trace() != null) {
                text.append('\n').append(task.trace());
            }
        }
        return text.toString();
    }
}
