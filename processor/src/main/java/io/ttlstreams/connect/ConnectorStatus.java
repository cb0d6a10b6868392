package io.ttlstreams.connect;

import io.ttlstreams.secrets.Redaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A connector's state as Kafka Connect's {@code GET /connectors/<name>/status} reports it: the connector's own state
 * and each task's, with the stack trace of whatever failed.
 *
 * @param name the connector's name
 * @param state the connector's state: UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED or RESTARTING
 * @param trace the stack trace of the connector's failure; empty unless FAILED
 * @param tasks the connector's tasks, by id
 */
public record ConnectorStatus(String name, String state, Optional<String> trace, List<TaskStatus> tasks) {

    /** The state Connect reports for a unit that works. */
    public static final String RUNNING = "RUNNING";
    /** The state Connect reports for a unit that stopped on an error and stays stopped until restarted. */
    public static final String FAILED = "FAILED";

    /**
     * One task.
     *
     * @param id the task's number
     * @param state its state, as for the connector
     * @param trace the stack trace of its failure; empty unless FAILED
     */
    public record TaskStatus(int id, String state, Optional<String> trace) {}

    public ConnectorStatus {
        tasks = List.copyOf(tasks);
    }

    /**
     * Reads the REST API's status document.
     *
     * @throws IllegalArgumentException when {@code json} is not one
     */
    public static ConnectorStatus parse(String json) {
        try {
            BsonDocument status = BsonDocument.parse(json);
            BsonDocument connector = status.getDocument("connector");
            List<TaskStatus> tasks = new ArrayList<>();
            for (BsonValue task : status.getArray("tasks", new org.bson.BsonArray())) {
                BsonDocument taskStatus = task.asDocument();
                tasks.add(new TaskStatus(
                        taskStatus.getNumber("id").intValue(),
                        taskStatus.getString("state").getValue(),
                        trace(taskStatus)));
            }
            return new ConnectorStatus(
                    status.getString("name").getValue(),
                    connector.getString("state").getValue(),
                    trace(connector),
                    tasks);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Not a Kafka Connect connector status: " + e.getMessage(), e);
        }
    }

    /** Whether the connector and all its tasks run: a connector without tasks does no work. */
    public boolean running() {
        return RUNNING.equals(state)
                && !tasks.isEmpty()
                && tasks.stream().allMatch(task -> RUNNING.equals(task.state()));
    }

    /** How many units, the connector itself and each task, are FAILED. */
    public int failures() {
        return (FAILED.equals(state) ? 1 : 0)
                + (int) tasks.stream()
                        .filter(task -> FAILED.equals(task.state()))
                        .count();
    }

    /**
     * Why the connector is not {@link #running()}, one line per unit that is not RUNNING, failures with the summary
     * of their trace; empty when it runs.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!RUNNING.equals(state)) {
            problems.add("connector " + name + " is " + state
                    + trace.map(t -> ": " + summary(t)).orElse(""));
        }
        if (tasks.isEmpty()) {
            problems.add("connector " + name + " has no tasks");
        }
        for (TaskStatus task : tasks) {
            if (!RUNNING.equals(task.state())) {
                problems.add("connector " + name + " task " + task.id() + " is " + task.state()
                        + task.trace().map(t -> ": " + summary(t)).orElse(""));
            }
        }
        return problems;
    }

    /**
     * A stack trace in one line: its first line (the exception and message) and, when there is one, the root
     * cause's ("Caused by: ..."), which usually names what actually went wrong, such as a resume token that is no
     * longer in the oplog.
     */
    public static String summary(String trace) {
        List<String> lines = trace.lines().map(String::strip).toList();
        if (lines.isEmpty()) {
            return "";
        }
        String first = lines.get(0);
        String rootCause = first;
        for (String line : lines) {
            if (line.startsWith("Caused by: ")) {
                rootCause = line.substring("Caused by: ".length());
            }
        }
        return rootCause.equals(first) ? first : first + " (caused by " + rootCause + ")";
    }

    /**
     * The unit's trace, {@link Redaction redacted}: Connect's exceptions may quote a configuration value such as
     * {@code connection.uri}, and the trace's summary reaches the HTTP answers, which the log redaction does not cover.
     */
    private static Optional<String> trace(BsonDocument unit) {
        return unit.containsKey("trace") && unit.get("trace").isString()
                ? Optional.of(Redaction.redact(unit.getString("trace").getValue()))
                : Optional.empty();
    }
}
