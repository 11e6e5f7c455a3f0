package dev.arbiter.specs;

import static io.cucumber.junit.platform.engine.Constants.FILTER_TAGS_PROPERTY_NAME;
import static io.cucumber.junit.platform.engine.Constants.GLUE_PROPERTY_NAME;
import static io.cucumber.junit.platform.engine.Constants.PLUGIN_PROPERTY_NAME;

import org.junit.platform.suite.api.ConfigurationParameter;
import org.junit.platform.suite.api.IncludeEngines;
import org.junit.platform.suite.api.SelectDirectories;
import org.junit.platform.suite.api.Suite;

/**
 * Runs every scenario in {@code features/} against the shipped {@code rules/}, through the JUnit Platform so that
 * Surefire counts each scenario (and each Scenario Outline row) as a test. The HTML report goes to
 * {@code target/cucumber-report.html}. Scenarios tagged {@code @engine-bug} pin down a known engine bug and are left out
 * until it is fixed.
 */
@Suite
@IncludeEngines("cucumber")
@SelectDirectories("features")
@ConfigurationParameter(key = GLUE_PROPERTY_NAME, value = "dev.arbiter.specs")
@ConfigurationParameter(key = PLUGIN_PROPERTY_NAME,
        value = "dev.arbiter.specs.SpecListener, summary, html:target/cucumber-report.html")
@ConfigurationParameter(key = FILTER_TAGS_PROPERTY_NAME, value = "not @engine-bug")
class AcceptanceSpecsTest {}
