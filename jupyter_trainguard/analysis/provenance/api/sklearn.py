"""scikit-learn and imbalanced-learn: transformers, models, pipelines, searches, splitters, resamplers, helpers."""

from __future__ import annotations

from .table import ClassRow, FuncRow

SK = ("sklearn",)
IMB = ("imblearn",)
CE = ("category_encoders",)
_T = ClassRow("transformer", SK)
_V = ClassRow("transformer", SK, vocab=True)
_S = ClassRow("stateless", SK)

CLASSES: dict[str, ClassRow] = {
    **{n: _T for n in (
        "StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler", "QuantileTransformer", "PowerTransformer",
        "SimpleImputer", "KNNImputer", "IterativeImputer", "TargetEncoder", "PCA", "TruncatedSVD", "KernelPCA",
        "IncrementalPCA", "NMF", "FastICA", "FactorAnalysis", "LatentDirichletAllocation", "SelectKBest",
        "SelectPercentile", "RFE", "RFECV", "SelectFromModel", "VarianceThreshold", "TfidfVectorizer",
        "TfidfTransformer", "KBinsDiscretizer", "ColumnTransformer", "make_column_transformer",
        "FeatureAgglomeration", "GenericUnivariateSelect", "SequentialFeatureSelector", "SelectFdr", "SelectFpr",
        "SelectFwe", "FeatureUnion", "make_union", "SplineTransformer", "TSNE", "Isomap", "LocallyLinearEmbedding",
        "MDS", "SpectralEmbedding", "GaussianRandomProjection", "SparseRandomProjection", "Nystroem",
        "RBFSampler", "DictionaryLearning", "MiniBatchDictionaryLearning", "SparsePCA", "MiniBatchSparsePCA",
        # names of scikit-learn < 0.20 that old notebooks still import
        "Imputer", "RandomizedPCA", "RandomizedLasso", "RandomizedLogisticRegression")},
    # encoders that only rename categories: what they learn does not depend on how often a value occurs
    **{n: _V for n in ("LabelEncoder", "LabelBinarizer", "MultiLabelBinarizer", "DictVectorizer")},
    **{n: ClassRow("transformer", SK + CE, vocab=True) for n in ("OneHotEncoder", "OrdinalEncoder")},
    # category_encoders' renamers: codes, bits or contrasts of the categories seen, nothing about how often
    **{n: ClassRow("transformer", CE, vocab=True) for n in (
        "BinaryEncoder", "BaseNEncoder", "HelmertEncoder", "SumEncoder", "BackwardDifferenceEncoder",
        "PolynomialEncoder")},
    "HashingEncoder": ClassRow("stateless", CE),
    "CountVectorizer": _T,
    **{n: _S for n in ("Normalizer", "Binarizer", "PolynomialFeatures", "FunctionTransformer",
                       "HashingVectorizer", "FeatureHasher", "MissingIndicator", "PatchExtractor")},
    # third-party encoders and selectors with the scikit-learn interface
    **{n: ClassRow("transformer", ("category_encoders", "feature_engine", "sklearn", "mlxtend"))
       for n in ("MeanEncoder", "WOEEncoder", "CatBoostEncoder", "LeaveOneOutEncoder", "JamesSteinEncoder",
                 "MEstimateEncoder", "CountFrequencyEncoder", "CountEncoder", "GLMMEncoder", "QuantileEncoder",
                 "MeanMedianImputer", "Winsorizer", "OutlierTrimmer",
                 "SequentialFeatureSelector", "ExhaustiveFeatureSelector")},
    "PermutationImportance": ClassRow("transformer", ("eli5",)),  # its `fit(X, y)` ranks columns on those rows
    "UMAP": ClassRow("transformer", ("umap",)),  # umap-learn: an embedding learned from the rows it is fitted on
    "HDBSCAN": ClassRow("model", ("hdbscan", "sklearn")),  # clusters found in the rows it is fitted on
    **{n: ClassRow("model", ("pygam",)) for n in ("LinearGAM", "LogisticGAM", "PoissonGAM", "GammaGAM")},
    "Pipeline": ClassRow("pipeline", SK + IMB),
    "make_pipeline": ClassRow("pipeline", SK + IMB),
    **{n: ClassRow("search", SK + ("skopt", "tune_sklearn")) for n in (
        "GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV", "HalvingRandomSearchCV", "BayesSearchCV",
        "TuneSearchCV", "TuneGridSearchCV")},
    **{n: ClassRow("splitter", SK) for n in (
        "KFold", "StratifiedKFold", "GroupKFold", "RepeatedKFold", "RepeatedStratifiedKFold", "ShuffleSplit",
        "StratifiedShuffleSplit", "GroupShuffleSplit", "TimeSeriesSplit", "LeaveOneOut", "LeavePOut",
        "StratifiedGroupKFold", "PredefinedSplit", "LeaveOneGroupOut", "LeavePGroupsOut")},
    **{n: ClassRow("resampler", IMB) for n in (
        "SMOTE", "ADASYN", "RandomOverSampler", "BorderlineSMOTE", "SVMSMOTE", "KMeansSMOTE", "SMOTENC", "SMOTEN",
        "SMOTEENN", "SMOTETomek")},
    **{n: ClassRow("undersampler", IMB) for n in (
        "RandomUnderSampler", "NearMiss", "TomekLinks", "ClusterCentroids", "EditedNearestNeighbours",
        "RepeatedEditedNearestNeighbours", "AllKNN", "CondensedNearestNeighbour", "OneSidedSelection",
        "NeighbourhoodCleaningRule", "InstanceHardnessThreshold")},
    # estimators whose names do not say so
    **{n: ClassRow("model", SK) for n in (
        "KMeans", "MiniBatchKMeans", "DBSCAN", "AgglomerativeClustering", "GaussianMixture", "MeanShift",
        "BayesianGaussianMixture", "AffinityPropagation", "SpectralClustering", "Birch", "OPTICS",
        "LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis",
        "IsolationForest", "LocalOutlierFactor", "OneClassSVM", "EllipticEnvelope", "KNeighborsClassifier",
        "NearestNeighbors", "GaussianProcessClassifier", "GaussianProcessRegressor", "MLPClassifier",
        "MLPRegressor", "BayesianRidge", "ARDRegression", "Lars", "LassoLars", "LassoCV", "RidgeCV",
        "ElasticNetCV", "LogisticRegressionCV", "SGDClassifier", "SGDRegressor", "HuberRegressor",
        "TheilSenRegressor", "RANSACRegressor", "OrthogonalMatchingPursuit", "KernelRidge", "LinearSVC",
        "LinearSVR", "NuSVC", "NuSVR", "SVC", "SVR", "GaussianNB", "MultinomialNB", "BernoulliNB",
        "ComplementNB", "CategoricalNB", "StackingClassifier", "StackingRegressor", "VotingClassifier",
        "VotingRegressor", "BaggingClassifier", "BaggingRegressor", "CalibratedClassifierCV",
        "OneVsRestClassifier", "OneVsOneClassifier", "MultiOutputRegressor", "MultiOutputClassifier",
        "DummyClassifier", "DummyRegressor", "TransformedTargetRegressor", "BalancedRandomForestClassifier",
        "EasyEnsembleClassifier", "RUSBoostClassifier", "BalancedBaggingClassifier", "LDA", "QDA")},
}

# an estimator of these modules that the table does not name is still a transformer or a model
TRANSFORMER_MODULES = ("preprocessing", "decomposition", "feature_selection", "feature_extraction", "manifold",
                       "impute", "random_projection", "kernel_approximation")
MODEL_MODULES = ("linear_model", "ensemble", "svm", "tree", "neighbors", "naive_bayes", "neural_network",
                 "discriminant_analysis", "gaussian_process", "kernel_ridge", "isotonic", "lda", "qda")

# estimators fitted on features alone (clusterings, neighbours, density and outlier models): what they output for
# rows (cluster, distances, scores) is a transform of the rows they were fitted on, as PCA's components are
UNSUPERVISED = frozenset({
    "KMeans", "MiniBatchKMeans", "GaussianMixture", "BayesianGaussianMixture", "MeanShift", "Birch",
    "NearestNeighbors", "IsolationForest", "LocalOutlierFactor", "OneClassSVM", "EllipticEnvelope",
    "SpectralClustering", "AgglomerativeClustering", "DBSCAN", "OPTICS", "AffinityPropagation", "HDBSCAN"})

FUNCS: dict[str, FuncRow] = {
    # a copy of an estimator: `clone` unfitted with the same settings, `copy.deepcopy` with its fit too
    "clone": FuncRow("clone", SK),
    "shuffle": FuncRow("shuffle", SK),  # sklearn.utils.shuffle(X, y): each array's own rows, reordered alike
    "deepcopy": FuncRow("copy", ("copy",)),
    "copy": FuncRow("copy", ("copy",)),
    "train_test_split": FuncRow("split", SK),
    **{n: FuncRow("cv", SK) for n in ("cross_val_score", "cross_validate", "cross_val_predict", "learning_curve",
                                      "validation_curve", "permutation_test_score")},
    **{n: FuncRow("scale", SK) for n in ("scale", "minmax_scale", "robust_scale", "maxabs_scale",
                                         "quantile_transform", "power_transform")},
    **{n: FuncRow("stateless", SK) for n in ("normalize", "binarize", "label_binarize")},
    # how well clusters separate the rows they were found in: no label is read, nothing is scored against one
    **{n: FuncRow("stateless", SK) for n in ("silhouette_score", "silhouette_samples", "davies_bouldin_score",
                                             "calinski_harabasz_score")},
    "resample": FuncRow("resample", SK),
    # importances learned by shuffling each column of the rows given (`permutation_importance(model, X, y)`), and
    # eli5's display of a fitted ranking (`eli5.show_weights(PermutationImportance(model).fit(X, y))`)
    "permutation_importance": FuncRow("importance", SK),
    **{n: FuncRow("shows_ranking", ("eli5",)) for n in ("show_weights", "explain_weights", "explain_weights_df")},
    # univariate feature scores against the label (`mi = mutual_info_classif(X, y)`, then the best columns kept)
    **{n: FuncRow("statistic", SK) for n in ("mutual_info_classif", "mutual_info_regression", "f_classif",
                                             "f_regression", "chi2", "r_regression")},
    **{n: FuncRow("read", SK) for n in ("load_iris", "load_digits", "load_wine", "load_breast_cancer",
                                        "load_diabetes", "load_boston", "load_linnerud", "fetch_openml",
                                        "fetch_california_housing", "fetch_20newsgroups", "fetch_olivetti_faces",
                                        "fetch_lfw_people", "fetch_covtype", "fetch_kddcup99", "make_classification",
                                        "make_regression", "make_blobs", "make_moons", "make_circles",
                                        "make_friedman1", "load_svmlight_file")},
    **{n: FuncRow("metric", SK) for n in ("accuracy_score", "classification_report", "confusion_matrix",
                                          "roc_auc_score", "log_loss", "mean_squared_error", "r2_score", "f1_score",
                                          "precision_score", "recall_score", "mean_absolute_error", "roc_curve",
                                          "precision_recall_curve", "auc", "matthews_corrcoef", "cohen_kappa_score",
                                          "balanced_accuracy_score", "average_precision_score",
                                          "mean_squared_log_error", "explained_variance_score", "max_error",
                                          "median_absolute_error", "mean_absolute_percentage_error",
                                          "hamming_loss", "jaccard_score", "fbeta_score", "top_k_accuracy_score",
                                          "precision_recall_fscore_support", "multilabel_confusion_matrix",
                                          "plot_confusion_matrix", "plot_roc_curve")},
}
