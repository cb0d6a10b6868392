package io.ttlstreams.config;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The expiry events the processor publishes beside its delete commands: the topic of the expired records and notices
 * ({@value OutputTopicOptions#EXPIRED_TOPIC_CONFIG}, off when empty) and, per rule, what the record carries as the
 * document and how long before the deadline the notice comes.
 *
 * @param topic the expired-records topic; empty when they are off
 * @param documents each rule's {@link ExpiredDocument}, by rule name
 * @param noticeSeconds each rule's {@code notice.before.seconds}, by rule name, for the rules that publish notices
 */
public record ExpiryEvents(
        Optional<String> topic, Map<String, ExpiredDocument> documents, Map<String, Long> noticeSeconds) {

    /** No expiry events: no topic, no notices, no documents. */
    public static final ExpiryEvents NONE = new ExpiryEvents(Optional.empty(), Map.of(), Map.of());

    /** Copies the maps. */
    public ExpiryEvents {
        documents = Map.copyOf(documents);
        noticeSeconds = Map.copyOf(noticeSeconds);
    }

    /** How long before its deadlines rule {@code ruleName} publishes a notice; empty for none. */
    public OptionalLong noticeBeforeSeconds(String ruleName) {
        Long seconds = noticeSeconds.get(ruleName);
        return seconds == null ? OptionalLong.empty() : OptionalLong.of(seconds);
    }

    /** What rule {@code ruleName}'s records carry; {@link ExpiredDocument#NONE} for a rule not known here. */
    public ExpiredDocument document(String ruleName) {
        return documents.getOrDefault(ruleName, ExpiredDocument.NONE);
    }
}
