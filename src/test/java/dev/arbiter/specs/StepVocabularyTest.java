package dev.arbiter.specs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** An undefined step is answered with the closest sentences of docs/writing-specs.md. */
class StepVocabularyTest {
    private static final StepVocabulary VOCABULARY = StepVocabulary.shipped();

    @Test
    void theJarCarriesTheDocsVocabulary() throws IOException {
        StepVocabulary fromDoc = StepVocabulary.parse(Files.readString(Path.of("docs/writing-specs.md")));
        assertTrue(fromDoc.sentences().size() >= 30, fromDoc.sentences().toString());
        assertEquals(fromDoc.sentences(), VOCABULARY.sentences(), "the copy in the jar is the doc");
    }

    @ParameterizedTest(name = "\"{0}\" suggests \"{1}\" first")
    @CsvSource(delimiterString = " => ", textBlock = """
            a clsuter of 2 nodes => Given a cluster of <n> node[s] with <g> GPU[s] each
            queue "a" with wieght 2 => Given queue "<name>" with weight <w>
            tenant A submit a job "x" of 2 pods with 8 GPUs each => Given tenant <T> {runs|submits} a job "<name>" of <n> pod[s] with <g> GPU[s] each[ at <class>][ in queue "<queue>"]
            priority clases p0 100, p1 10 => Given priority class[es] <list>
            """)
    void aTypoSuggestsTheSentenceItMeant(String step, String expected) {
        List<String> closest = VOCABULARY.closest(step, 3);
        assertEquals(expected, closest.get(0), closest.toString());
        assertTrue(closest.size() <= 3);
    }

    @Test
    void optionalTextAndAlternativesAreTriedBothWays() {
        assertEquals(List.of("a node", "a nodes"), StepVocabulary.variants("a node[s]"));
        assertEquals(List.of("x is", "x are"), StepVocabulary.variants("x {is|are}"));
    }
}
