package io.ttlstreams.metrics;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Timer;
import io.ttlstreams.processor.TtlMetrics;
import org.apache.kafka.streams.StreamsMetrics;

/**
 * ttl-streams records each of its events once, in a {@link TtlMetrics} sensor of Kafka Streams' registry (which JMX
 * shows); Prometheus reads those sensors through their stats ({@link TtlStreamsCollector}). Micrometer keeps only
 * gauges of state read at scrape time (the schedule, the connectors, the sources), never a second count of an event,
 * and no counter of ttl-streams lives outside Kafka's metrics (no {@code LongAdder} or atomic beside them).
 */
@AnalyzeClasses(packages = "io.ttlstreams", importOptions = ImportOption.DoNotIncludeTests.class)
class OneRecorderTest {

    @ArchTest
    static final ArchRule noMicrometerRecorders = noClasses()
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(
                    Counter.class,
                    FunctionCounter.class,
                    Timer.class,
                    FunctionTimer.class,
                    LongTaskTimer.class,
                    DistributionSummary.class)
            .because("events are counted in TtlMetrics' Kafka sensors, which JMX and Prometheus both read");

    @ArchTest
    static final ArchRule noCountersBesideTheSensors = noClasses()
            .that()
            .resideInAnyPackage("io.ttlstreams.processor..", "io.ttlstreams.metrics..")
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(
                    java.util.concurrent.atomic.LongAdder.class,
                    java.util.concurrent.atomic.AtomicLong.class,
                    java.util.concurrent.atomic.DoubleAdder.class)
            .because("a count kept beside the Kafka sensors is a second recorder that JMX does not show");

    @ArchTest
    static final ArchRule sensorsOnlyInTtlMetrics = noClasses()
            .that()
            .doNotBelongToAnyOf(TtlMetrics.class)
            .should()
            .callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                    com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner(
                            com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo(StreamsMetrics.class))))
            .because("TtlMetrics names, tags and closes every ttl-streams sensor in one place");
}
