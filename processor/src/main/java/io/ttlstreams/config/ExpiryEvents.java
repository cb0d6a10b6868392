package io.ttlstreams.config;

import java.util.Map;
import java.util.Optional;

/**
 * The expiry events the processor publishes beside its delete commands: the topic of the expired records ({@value
 * OutputTopicOptions#EXPIRED_TOPIC_CONFIG}, off when empty) and, per rule, what the record carries as the document.
 *
 * @param topic the expired-records topic; empty when they are off
 * @param documents each rule's {@link ExpiredDocument}, by rule name
 */
public record ExpiryEvents(Optional<String> topic, Map<String, ExpiredDocument> documents) {

    /** Copies the map. */
    public ExpiryEvents {
        documents = Map.copyOf(documents);
    }

    /** What rule {@code ruleName}'s records carry; {@link ExpiredDocument#NONE} for a rule not known here. */
    public ExpiredDocument document(String ruleName) {
        return documents.getOrDefault(ruleName, ExpiredDocument.NONE);
    }

    /** Whether some rule's records carry the pre-image, so that the source connector must ask for pre-images. */
    public boolean anyPreImages() {
        return documents.containsValue(ExpiredDocument.PRE_IMAGE);
    }
}
