package io.ttlstreams.platform;

import java.util.Objects;

/**
 * One topic-level setting ttl-streams asks for, the reason it differs from the broker's default, and whether the
 * processor refuses to start on a declared topic that does not meet it ({@code ttl.topics.create=false}).
 *
 * @param name      the topic config's name, e.g. {@code cleanup.policy}
 * @param value     the value rendered (and set when the processor creates the topic)
 * @param check     how the processor compares a declared topic's value
 * @param reason    why this value, in one sentence
 * @param threshold what a declared value is compared with: {@code value}, or less where the rendered value is advice
 *                  above what the processor needs
 */
public record TopicSetting(String name, String value, Check check, String reason, String threshold) {

    /** How a declared topic's actual value is compared. */
    public enum Check {
        /** Rendered as advice only: the processor cannot tell the right value (it depends on the deployment). */
        ADVISORY,
        /** Must equal the threshold. */
        EQUAL,
        /** A number that must be at least the threshold; {@code -1} (unlimited) always is. */
        AT_LEAST
    }

    public TopicSetting {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(threshold, "threshold");
    }

    /** A setting checked against the value it renders. */
    public TopicSetting(String name, String value, Check check, String reason) {
        this(name, value, check, reason, value);
    }

    /** Whether {@code actual}, a declared topic's value (null when unset), meets this setting. */
    public boolean accepts(String actual) {
        return switch (check) {
            case ADVISORY -> true;
            case EQUAL -> threshold.equals(actual);
            case AT_LEAST -> atLeast(actual);
        };
    }

    /** What {@link #accepts} asks for, as a message names it. */
    public String expected() {
        return check == Check.AT_LEAST ? "at least " + threshold : threshold;
    }

    private boolean atLeast(String actual) {
        if (actual == null) {
            return false;
        }
        try {
            long number = Long.parseLong(actual.trim());
            return number == -1 || number >= Long.parseLong(threshold);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
