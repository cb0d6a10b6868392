package io.ttlstreams.config;

import io.ttlstreams.rules.ConfigValues;

/**
 * The service behind the MongoDB API ({@value SourceOptions#SOURCE_PROFILE_CONFIG}) and what its change streams
 * document, so that the rendered connectors are ones it accepts and confirmation does not wait for events it never
 * sends. The facts, with their sources, are in docs/compatible-services.md; none of these services but MongoDB was
 * ever run against.
 */
public enum SourceProfile {
    /** MongoDB 4.4 or later, a replica set or sharded cluster. */
    MONGODB("MongoDB"),
    /**
     * Azure Cosmos DB for MongoDB (RU): a change stream per collection, which must be exactly {@code $match} on
     * insert/update/replace and {@code $project} of {@code _id, fullDocument, ns, documentKey} with updateLookup,
     * and which never reports deletes. The projection drops {@code operationType} and the event times.
     */
    COSMOSDB("Azure Cosmos DB for MongoDB (RU)"),
    /**
     * Amazon DocumentDB: change streams enabled per collection or database ({@code modifyChangeStreams}), kept 3 hours
     * by default (up to 7 days); pipeline stages {@code $match, $project, $redact, $addFields, $replaceRoot}.
     */
    DOCUMENTDB("Amazon DocumentDB"),
    /**
     * Firestore with MongoDB compatibility (change streams in preview): created with a retention of 1 to 7 days,
     * database or collection scope, reports inserts, updates, deletes and drops; stages {@code $addFields, $match,
     * $project, $replaceRoot, $replaceWith, $set, $unset}.
     */
    FIRESTORE("Firestore with MongoDB compatibility"),
    /**
     * Azure DocumentDB (formerly Cosmos DB for MongoDB vCore): change streams on single-shard clusters (multi-shard
     * in preview), a 400 MB change log; its documentation shows collection watches and states nothing about delete
     * events, so confirmation falls back to reads.
     */
    AZURE_DOCUMENTDB("Azure DocumentDB (vCore)");

    private final String service;

    SourceProfile(String service) {
        this.service = service;
    }

    /** The value as written in the configuration. */
    public String configValue() {
        return ConfigValues.spelling(this);
    }

    /** The service's name, for messages and documentation. */
    public String service() {
        return service;
    }

    /** Whether one change stream may watch a whole database; otherwise one connector per collection. */
    public boolean watchesDatabases() {
        return this != COSMOSDB && this != AZURE_DOCUMENTDB;
    }

    /** Whether the change stream reports deletes: without, only a read confirms a delete. */
    public boolean reportsDeletes() {
        return this != COSMOSDB;
    }

    /**
     * Whether the pipeline is the one MongoDB gets: every stage, the document-key bound ({@code $bsonSize}) and the
     * projection of the rules' fields. Otherwise only what the service documents.
     */
    public boolean takesFullPipeline() {
        return this == MONGODB;
    }

    /**
     * Whether the change stream serves pre-images ({@code fullDocumentBeforeChange}, with {@code
     * changeStreamPreAndPostImages} on the collection): MongoDB 6.0 and later. The other services' change-stream
     * documentation describes none (docs/compatible-services.md).
     */
    public boolean servesPreImages() {
        return this == MONGODB;
    }

    /**
     * Whether the service refuses retryable writes, so that every client that writes needs {@code retryWrites=false}:
     * Firestore with MongoDB compatibility, and Amazon DocumentDB before engine 8.0.2, which ttl-streams cannot tell
     * apart from a later one (turning retries off there only loses the driver's one retry).
     */
    public boolean refusesRetryableWrites() {
        return this == FIRESTORE || this == DOCUMENTDB;
    }

    /** Whether the change stream must be exactly Cosmos DB's documented shape, which carries no operation type. */
    public boolean requiresFixedPipeline() {
        return this == COSMOSDB;
    }

    /** Whether events carry {@code operationType}; without it, each event carries the document as it now is. */
    public boolean eventsCarryOperationType() {
        return this != COSMOSDB;
    }

    /**
     * Whether the source connector's heartbeats (resume tokens of an idle stream) are rendered: not for Cosmos DB,
     * whose documentation says nothing of {@code postBatchResumeToken}.
     */
    public boolean heartbeats() {
        return this != COSMOSDB;
    }

    /** The profile a configuration value names. */
    static SourceProfile of(String configValue) {
        return ConfigValues.parse(SourceProfile.class, "source profile", configValue);
    }
}
