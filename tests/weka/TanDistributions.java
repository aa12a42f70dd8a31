// Prints Weka 3.6's TAN (BayesNet + TAN search + SimpleEstimator) at full precision
// (tests/test_tan.py).
//
// The test compiles this file into its tmp_path at test time (never commit .class files):
//   javac -cp /usr/share/java/weka.jar -d TMP tests/weka/TanDistributions.java
//   java -cp /usr/share/java/weka.jar:TMP TanDistributions ALPHA SCORE train.arff test.arff OUT [...]
// ALPHA is SimpleEstimator's -A; SCORE the TAN search's -S (ENTROPY: the arc gain is
// N I(X_i; X_j | Y), Friedman et al.'s criterion; Weka's default is BAYES). The class is the
// last attribute. After the two settings, arguments come in triples (train ARFF, test ARFF,
// output prefix); each triple writes three files:
//   OUT.parents  one line: each non-class attribute's feature parent (-1: the class only)
//   OUT.cpt      one line per table cell: attribute, parent configuration, value, probability
//                (configuration = class * K_parent + parent value, Weka's own indexing)
//   OUT.csv      one line per test row: its class distribution
// Numbers are written with Double.toString (round-trip exact).

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.PrintWriter;

import weka.classifiers.bayes.BayesNet;
import weka.classifiers.bayes.net.estimate.SimpleEstimator;
import weka.classifiers.bayes.net.search.local.TAN;
import weka.core.Instances;
import weka.core.Utils;

public class TanDistributions {
  private static Instances read(String path) throws Exception {
    try (BufferedReader reader = new BufferedReader(new FileReader(path))) {
      Instances data = new Instances(reader);
      data.setClassIndex(data.numAttributes() - 1);
      return data;
    }
  }

  private static PrintWriter writer(String path) throws Exception {
    return new PrintWriter(new BufferedWriter(new FileWriter(path)));
  }

  private static BayesNet build(Instances train, String alpha, String score) throws Exception {
    TAN search = new TAN();
    search.setOptions(new String[] {"-S", score});
    SimpleEstimator estimator = new SimpleEstimator();
    estimator.setOptions(new String[] {"-A", alpha});
    BayesNet net = new BayesNet();
    net.setSearchAlgorithm(search);
    net.setEstimator(estimator);
    net.buildClassifier(train);
    System.err.println("BayesNet " + Utils.joinOptions(net.getOptions()));
    return net;
  }

  private static void writeStructure(BayesNet net, Instances train, String prefix)
      throws Exception {
    int classIndex = train.classIndex();
    try (PrintWriter parents = writer(prefix + ".parents");
        PrintWriter cpt = writer(prefix + ".cpt")) {
      StringBuilder line = new StringBuilder();
      for (int a = 0; a < train.numAttributes(); a++) {
        if (a == classIndex) {
          continue;
        }
        int featureParent = -1;
        for (int p = 0; p < net.getNrOfParents(a); p++) {
          if (net.getParent(a, p) != classIndex) {
            featureParent = net.getParent(a, p);
          }
        }
        if (line.length() > 0) {
          line.append(',');
        }
        line.append(featureParent);
        for (int config = 0; config < net.getParentCardinality(a); config++) {
          for (int v = 0; v < net.getCardinality(a); v++) {
            cpt.println(a + "," + config + "," + v + "," + Double.toString(net.getProbability(a, config, v)));
          }
        }
      }
      parents.println(line);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 5 || (args.length - 2) % 3 != 0) {
      System.err.println("usage: TanDistributions ALPHA SCORE train.arff test.arff OUT [...]");
      System.exit(2);
    }
    for (int k = 2; k < args.length; k += 3) {
      Instances train = read(args[k]);
      Instances test = read(args[k + 1]);
      BayesNet net = build(train, args[0], args[1]);
      writeStructure(net, train, args[k + 2]);
      try (PrintWriter out = writer(args[k + 2] + ".csv")) {
        for (int r = 0; r < test.numInstances(); r++) {
          double[] dist = net.distributionForInstance(test.instance(r));
          StringBuilder line = new StringBuilder();
          for (int c = 0; c < dist.length; c++) {
            if (c > 0) {
              line.append(',');
            }
            line.append(Double.toString(dist[c]));
          }
          out.println(line);
        }
      }
    }
  }
}
