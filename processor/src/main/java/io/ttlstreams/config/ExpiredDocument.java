package io.ttlstreams.config;

import io.ttlstreams.rules.ConfigValues;

/**
 * What an expired record of a rule carries as the document ({@value RuleConfig#EXPIRED_DOCUMENT_CONFIG}): the
 * document's last state, from the change stream's pre-image of the delete, or nothing.
 */
public enum ExpiredDocument {

    /**
     * The delete event's {@code fullDocumentBeforeChange}: the collection needs {@code changeStreamPreAndPostImages}
     * (MongoDB 6.0+), and the source connector renders {@code change.stream.full.document.before.change}.
     */
    PRE_IMAGE,

    /** No document: the record carries the key, the rule and the times only. */
    NONE;

    /** The spelling used in configuration files. */
    public String configValue() {
        return ConfigValues.spelling(this);
    }
}
