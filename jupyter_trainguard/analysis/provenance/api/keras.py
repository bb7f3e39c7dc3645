"""Keras / TensorFlow: text and image preprocessing layers that learn statistics, models, datasets."""

from __future__ import annotations

from .table import ClassRow, FuncRow

KR = ("keras", "tensorflow", "tf_keras")
KT = ("keras_tuner", "kerastuner")
CLASSES: dict[str, ClassRow] = {
    "Tokenizer": ClassRow("transformer", KR),
    "TextVectorization": ClassRow("transformer", KR),
    "Normalization": ClassRow("transformer", KR),
    "StringLookup": ClassRow("transformer", KR, vocab=True),
    "IntegerLookup": ClassRow("transformer", KR, vocab=True),
    "Discretization": ClassRow("transformer", KR),
    "ImageDataGenerator": ClassRow("augmenter", KR),
    "Sequential": ClassRow("model", KR),
    "Model": ClassRow("model", KR),
    # keras-tuner: `tuner.search(..., validation_data=...)` keeps the settings that score best on that data
    **{n: ClassRow("tuner", KT) for n in ("RandomSearch", "Hyperband", "BayesianOptimization", "GridSearch")},
}
FUNCS: dict[str, FuncRow] = {
    "load_data": FuncRow("load_split", KR),
    "from_tensor_slices": FuncRow("build", KR),
    "pad_sequences": FuncRow("stateless", KR),
    "to_categorical": FuncRow("stateless", KR),
    "image_dataset_from_directory": FuncRow("read", KR),
    "text_dataset_from_directory": FuncRow("read", KR),
    # tf.data readers of files: the rows of what they read
    **{n: FuncRow("read", KR) for n in ("CsvDataset", "make_csv_dataset", "TextLineDataset", "TFRecordDataset",
                                        "FixedLengthRecordDataset")},
    "timeseries_dataset_from_array": FuncRow("window", KR),  # windows between start_index and end_index
}
