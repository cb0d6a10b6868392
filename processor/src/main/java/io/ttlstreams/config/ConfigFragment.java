package io.ttlstreams.config;

import org.apache.kafka.common.config.ConfigDef;

/**
 * Options that a module on the classpath adds to the configuration, found with {@link java.util.ServiceLoader}: module
 * {@code embedded} defines its {@code embedded.*} options this way. Where the module is present, start-up validates
 * its options and the reference documents them; where it is not, they are unknown keys and refused.
 */
public interface ConfigFragment {

    /**
     * Adds this fragment's options to {@code definition}, in a documentation group of their own, under a key prefix
     * that {@link TtlStreamsConfig} treats as its own ({@code ttl.} or {@code embedded.}).
     */
    void embedInto(ConfigDef definition);
}
