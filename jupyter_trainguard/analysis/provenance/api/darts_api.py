"""darts (time series): a `TimeSeries` keeps the rows (time steps) it is built from; `Scaler().fit_transform(series)`
learns each component's minimum and maximum from the steps given; a forecasting model's `fit(train)` learns from
its series and `predict(n=36)` forecasts the next steps (a horizon, told apart by the metric that scores it:
`mape(val, pred)`); `historical_forecasts(series, start=0.75)` / `backtest(...)` forecast each step after `start`
(retraining on the steps before it unless `retrain=False`); `series.split_before(0.75)` / `split_after(ts)` cut
the steps in two at a point in time.
Library datasets (`AirPassengersDataset().load()`) are data read."""

from __future__ import annotations

from .table import ClassRow, FuncRow

DA = ("darts",)
CLASSES: dict[str, ClassRow] = {
    "Scaler": ClassRow("transformer", DA),
    **{n: ClassRow("model", DA) for n in (
        "NBEATSModel", "NHiTSModel", "TCNModel", "TransformerModel", "TFTModel", "RNNModel", "BlockRNNModel",
        "DLinearModel", "NLinearModel", "TiDEModel", "TSMixerModel", "LinearRegressionModel", "RegressionModel",
        "LightGBMModel", "XGBModel", "CatBoostModel", "RandomForest", "ExponentialSmoothing", "ARIMA", "AutoARIMA",
        "StatsForecastAutoARIMA", "VARIMA", "Theta", "FourTheta", "FFT", "Prophet", "KalmanForecaster", "Croston",
        "NaiveSeasonal", "NaiveDrift", "NaiveMean", "NaiveMovingAverage", "TBATS", "BATS")},
}
FUNCS: dict[str, FuncRow] = {
    **{n: FuncRow("metric", DA) for n in ("mape", "smape", "mae", "mse", "rmse", "mase", "r2_score", "ope",
                                          "marre", "rmsle", "coefficient_of_variation", "wmape")},
}
SERIES_SPLITS = frozenset({"split_before", "split_after"})
BACKTESTS = frozenset({"historical_forecasts", "backtest"})
